print("tutti")
