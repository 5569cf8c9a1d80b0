// `import Tutti` is all a host needs: the engine, the policy vocabulary and the DSP values
// the API takes come with it, and so does the output layer's vocabulary (ReconnectPolicy,
// OutputStatus, OutputEvent), which `OutputConfiguration` takes.
@_exported import TuttiDSP
@_exported import TuttiEngine
@_exported import TuttiOutput
@_exported import TuttiPolicy
