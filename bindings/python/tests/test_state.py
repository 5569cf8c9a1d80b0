"""The state reads (a session's state and hints, the device side, a source's output bus), the volume
button and silent sources, through the same C calls a C host makes."""

import numpy as np
import pytest

import tutti


def test_a_sessions_state_follows_the_policy(engine, music):
    status = music.status()
    assert status == tutti.SessionStatus(tutti.SessionState.INACTIVE, None, False, False)
    game = engine.session("game", tutti.Category.AMBIENT)
    music.tone(440.0, 0.5).play()
    music.activate()
    game.activate()
    engine.render(480)
    assert music.status().state == tutti.SessionState.AUDIBLE
    heard = game.status()
    assert heard.state == tutti.SessionState.AUDIBLE and heard.other_audio_playing and heard.silence_secondary_hint
    engine.set_silent_switch(True)
    engine.render(480)
    assert game.status()[:2] == (tutti.SessionState.SILENCED, tutti.SilenceReason.SILENT_SWITCH)
    engine.begin_phone_call()
    engine.render(480)
    assert music.status().state == tutti.SessionState.INTERRUPTED
    game.remove()
    with pytest.raises(tutti.NotFoundError):
        game.status()


def test_the_volume_button_steps_the_ringer_then_the_system_volume(engine, music):
    engine.set_volume(0.5)
    engine.set_ringer_volume(0.25)
    engine.set_route(tutti.Route.HEADPHONES)
    engine.press_volume_button(up=True)
    state = engine.system_state()
    assert state.volume == 0.5 and state.ringer_volume == pytest.approx(0.3125)
    assert state.route == tutti.Route.HEADPHONES and not state.call_active and not state.silent_switch
    music.tone(440.0, 0.5).play()
    music.activate()
    engine.render(4800)
    engine.press_volume_button(up=False)
    assert engine.system_state().volume == pytest.approx(0.4375)


def test_a_silent_source_plays_unheard_and_its_output_bus_reads_back(engine, music):
    quiet = music.silence()
    quiet.play()
    music.activate()
    out = engine.render(4800)
    assert np.max(np.abs(out)) == 0
    assert quiet.state == tutti.SourceState.PLAYING
    assert quiet.output_bus == "main"


def test_a_sessions_media_role_is_set_and_read_back(engine, music):
    """media_role: the category's role, an override by name that outlives a category change,
    None back to the category's; an unknown name changes nothing; no role without output."""
    assert music.media_role == "Music"
    game = engine.session("game", tutti.Category.AMBIENT)
    assert game.media_role == "Game"
    music.media_role = "Game"
    assert music.media_role == "Game"
    music.set_category(tutti.Category.PLAY_AND_RECORD)
    assert music.media_role == "Game"
    with pytest.raises(tutti.InvalidArgumentError, match="Musak"):
        music.media_role = "Musak"
    assert music.media_role == "Game"
    music.media_role = None
    assert music.media_role == "Communication"
    mic = engine.session("mic", tutti.Category.RECORD)
    mic.media_role = "Test"
    assert mic.media_role is None
    game.remove()
    with pytest.raises(tutti.NotFoundError):
        game.media_role = "Music"
    with pytest.raises(tutti.NotFoundError):
        game.media_role
