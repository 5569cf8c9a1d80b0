/// The scene the live-capture tests of both backends play (`tutti play` with ALSA full duplex
/// and with JACK input ports): a 440 Hz tone of amplitude 0.25 in an ambient session (not
/// interrupted by the mic), and a playAndRecord session recording its input to take.wav: the
/// mic plays at 0, is muted at 1.5 s and unmuted at 2.0 s (nothing resumes by itself), and is
/// played again at 2.5 s. 3 s at 48 kHz, stereo, float32.
public let liveCaptureScene = """
    {"engine": {"sampleRate": 48000, "channels": 2, "output": "float32"}, "duration": 3,
     "sessions": [{"id": "bg", "category": "ambient"}, {"id": "rec", "category": "playAndRecord", "recordTo": "take.wav"}],
     "sources": [{"id": "tone", "session": "bg", "tone": {"frequency": 440, "amplitude": 0.25}},
                 {"id": "mic", "session": "rec", "input": {"channels": 1}}],
     "events": [{"at": 0, "session": "bg", "action": "activate"},
                {"at": 0, "source": "tone", "action": "play"},
                {"at": 0, "session": "rec", "action": "activate"},
                {"at": 0, "source": "mic", "action": "play"},
                {"at": 1.5, "device": "micMuted", "value": true},
                {"at": 2.0, "device": "micMuted", "value": false},
                {"at": 2.5, "source": "mic", "action": "play"}]}
    """
