"""The --roles file: JSON or TOML, per-role settings over default over the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.errors import UsageError
from scaleenv_mcp.generator.prompting import PROMPTS_DIR, render_prompt
from scaleenv_mcp.generator.roles import ROLES, load_roles, resolve_roles


def test_toml_roles_override_default_and_the_command_line(tmp_path: Path):
    path = tmp_path / "roles.toml"
    path.write_text('[default]\nmodel = "small"\n\n[code]\nmodel = "big"\nbase_url = "http://127.0.0.1:9/v1"\n'
                    'temperature = 0.2\nstructured = "tool"\n')
    roles = resolve_roles(load_roles(path), model="cli-model", base_url="http://cli/v1")
    assert roles["code"].model == "big" and roles["code"].base_url == "http://127.0.0.1:9/v1"
    assert roles["code"].temperature == 0.2 and roles["code"].structured == "tool"
    assert roles["tests"].model == "small" and roles["tests"].base_url == "http://cli/v1"
    assert roles["tests"].api_key_env == "OPENAI_API_KEY" and roles["tests"].structured == "auto"


def test_json_roles_and_no_file(tmp_path: Path):
    path = tmp_path / "roles.json"
    path.write_text('{"seed_data": {"max_tokens": 12000, "api_key_env": "LOCAL_KEY"}}')
    roles = resolve_roles(load_roles(path), model="m", base_url=None)
    assert roles["seed_data"].max_tokens == 12000 and roles["seed_data"].api_key_env == "LOCAL_KEY"
    assert resolve_roles(load_roles(None), model="m", base_url=None)["code"].model == "m"


@pytest.mark.parametrize(("text", "named"), [('{"coder": {"model": "x"}}', "unknown roles"),
                                             ('{"code": {"modle": "x"}}', "modle"), ("[", "roles file")])
def test_bad_roles_files_are_usage_errors_naming_the_problem(tmp_path: Path, text: str, named: str):
    path = tmp_path / "roles.json"
    path.write_text(text)
    with pytest.raises(UsageError, match=named):
        load_roles(path)


def test_a_role_without_a_model_is_a_usage_error():
    with pytest.raises(UsageError, match="--model"):
        resolve_roles(load_roles(None), model=None, base_url=None)


def test_every_role_has_a_prompt_file_with_a_user_part():
    for role in ROLES:
        assert (PROMPTS_DIR / f"{role}.md").is_file(), role
        text = (PROMPTS_DIR / f"{role}.md").read_text()
        assert "\n=== user ===\n" in text and "STAGE:" in text.split("=== user ===")[1], role


def test_a_missing_placeholder_is_an_error_not_left_in_the_prompt():
    with pytest.raises(KeyError, match="keyword"):
        render_prompt("domain_card", description="x")
    messages = render_prompt("domain_card", keyword="pet care", description="(none)")
    assert "{{" not in messages[1]["content"] and "KEYWORD: pet care" in messages[1]["content"]
