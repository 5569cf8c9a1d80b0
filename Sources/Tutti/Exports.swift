// `import Tutti` is the host API: `AudioEngine`, its handles and configuration, and the value
// types they take or return, re-exported one by one from the lower layers that define them.
// The layers themselves (the render engine, the pure policy, the DSP kernels, the output
// interface) are not re-exported: a host that wants them imports them on purpose
// (`import TuttiEngine`, …; docs/architecture.md). A file with only `import Tutti` cannot name
// `Renderer`, `Engine` or `PolicyState`.
//
// By layer: errors, the clock and what sources play and report (TuttiEngine); mixer settings
// (TuttiDSP); the reconnect settings `OutputConfiguration` takes and the interface its backend
// has (TuttiOutput); the policy's vocabulary (TuttiPolicy).
@_exported import enum TuttiDSP.EffectSettings
@_exported import protocol TuttiDSP.HostEffect
@_exported import struct TuttiDSP.LimiterSettings
@_exported import enum TuttiDSP.ResamplerQuality
@_exported import class TuttiEngine.AudioBuffer
@_exported import enum TuttiEngine.EngineTime
@_exported import enum TuttiEngine.PlaybackState
@_exported import struct TuttiEngine.SourceID
@_exported import struct TuttiEngine.SourceStatus
@_exported import struct TuttiEngine.TuttiError
@_exported import protocol TuttiOutput.OutputBackend
@_exported import struct TuttiOutput.ReconnectPolicy
@_exported import enum TuttiOutput.StreamLayout
@_exported import enum TuttiPolicy.Category
@_exported import enum TuttiPolicy.CategoryOption
@_exported import enum TuttiPolicy.ContentType
@_exported import struct TuttiPolicy.DeviceState
@_exported import struct TuttiPolicy.DuckingRule
@_exported import struct TuttiPolicy.DuckingSettings
@_exported import enum TuttiPolicy.DuckingTarget
@_exported import enum TuttiPolicy.DuckingTrigger
@_exported import enum TuttiPolicy.FocusRequest
@_exported import enum TuttiPolicy.InteractionOutcome
@_exported import struct TuttiPolicy.InteractionRule
@_exported import enum TuttiPolicy.InterruptionReason
@_exported import enum TuttiPolicy.MediaRole
@_exported import enum TuttiPolicy.Mode
@_exported import struct TuttiPolicy.OtherAudio
@_exported import enum TuttiPolicy.RemoteCommand
@_exported import enum TuttiPolicy.Route
@_exported import enum TuttiPolicy.RouteChangeReason
@_exported import struct TuttiPolicy.SessionConfiguration
@_exported import enum TuttiPolicy.SessionRenderState
@_exported import enum TuttiPolicy.SilenceReason
