import Glibc
import TuttiEngine
import TuttiOutput

func errnoName(_ code: Int32) -> String {
    String(cString: Glibc.strerror(code))
}
