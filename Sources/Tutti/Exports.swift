// `import Tutti` is all a host needs: the engine, the policy vocabulary and the DSP values
// the API takes come with it.
@_exported import TuttiDSP
@_exported import TuttiEngine
@_exported import TuttiPolicy
