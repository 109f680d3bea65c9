"""Settings read from the environment, and the one place that overrides it for proving hosts (#25)."""

from __future__ import annotations

import pytest

from scaleenv_mcp.settings import HostSettings


def test_serving_takes_the_output_check_mode_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SCALEENV_CHECK_OUTPUTS", "off")
    assert HostSettings.from_env().check_outputs == "off"
    assert HostSettings.from_env(check_outputs="sampled").check_outputs == "sampled"


@pytest.mark.parametrize("mode", ["off", "sampled"])
def test_a_proving_host_checks_every_result_whatever_the_environment_says(monkeypatch: pytest.MonkeyPatch, mode: str):
    """Synthesis, verify and its determinism run build their hosts with ``for_proving``."""
    monkeypatch.setenv("SCALEENV_CHECK_OUTPUTS", mode)
    monkeypatch.setenv("SCALEENV_CALL_TIMEOUT", "7")
    settings = HostSettings.for_proving(workers=1, check_outputs=mode)
    assert settings.check_outputs == "always"
    assert settings.call_timeout == 7 and settings.workers == 1  # the rest still comes from env and arguments


def test_stall_after_comes_from_the_environment_and_refuses_a_negative(monkeypatch: pytest.MonkeyPatch):
    """#29 item 5: SCALEENV_STALL_AFTER=0 keeps a stalled worker's queue where it is (the old behaviour)."""
    assert HostSettings().stall_after == 0.5
    monkeypatch.setenv("SCALEENV_STALL_AFTER", "0")
    assert HostSettings.from_env().stall_after == 0
    with pytest.raises(ValueError, match="stall_after"):
        HostSettings(stall_after=-1)
