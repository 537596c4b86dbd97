"""docs/rules.md covers every rule id the code and output cite; `mathhammer rules` prints it."""

from __future__ import annotations

import pytest

from mathhammer.cli import main
from mathhammer.rulesdoc import cited_ids, find_rules, parse_rules, rule_entries, rule_entry
from tests.conftest import ROOT, user_docs_text


def _cited_in(folder) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*")):
        if path.suffix in (".py", ".toml") and path.is_file():
            for rule in cited_ids(path.read_text(encoding="utf-8")):
                found.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_id_cited_in_the_package_has_an_entry():
    documented = {e.rule_id for e in rule_entries()}
    cited = _cited_in(ROOT / "mathhammer")
    missing = {rule: sorted(files)[:3] for rule, files in cited.items() if rule not in documented}
    assert not missing, f"cited in the code but missing from docs/rules.md: {missing}"


def test_every_id_cited_in_the_readme_and_bundled_data_has_an_entry():
    documented = {e.rule_id for e in rule_entries()}
    cited = cited_ids(user_docs_text()) | set(_cited_in(ROOT / "profiles"))
    assert not cited - documented


def test_every_entry_states_the_rule_and_its_source():
    entries = rule_entries()
    assert len({e.rule_id for e in entries}) == len(entries), "an id has two entries"
    for e in entries:
        assert e.rule_id.startswith(e.section + "-"), (e.rule_id, e.section)
        assert "**Rule.**" in e.text and "**Source.**" in e.text, e.rule_id


def test_the_seed_audit_decisions_are_written_down():
    audited = {e.rule_id for e in rule_entries() if "seed audit 2026-12" in e.text.lower()}
    assert {"WM-A6", "WM-A9", "WM-D4", "WM-D6", "WM-F1", "FB-C2", "MG-8", "DICE-6"} <= audited


def test_lookup_by_id_and_prefix():
    assert rule_entry("wm-a3").rule_id == "WM-A3"
    assert [e.rule_id for e in find_rules("MG-1")] == ["MG-1"]  # exact beats the MG-10 prefix
    assert {e.rule_id for e in find_rules("FB-C")} == {f"FB-C{i}" for i in range(1, 8)}
    assert all(e.section == "DICE" for e in find_rules("DICE"))


def test_parser_reads_sections_and_entries():
    text = "## XX — test\n\n### XX-1 — one\n**Rule.** a\n\n### XX-2 — two\n**Rule.** b\n"
    entries = parse_rules(text)
    assert [(e.rule_id, e.title, e.section) for e in entries] == [("XX-1", "one", "XX"),
                                                                 ("XX-2", "two", "XX")]
    assert entries[0].text == "**Rule.** a"


def run(capsys, *argv):
    with pytest.raises(SystemExit) as done:
        main(list(argv))
    out = capsys.readouterr()
    return done.value.code, out.out, out.err


def test_cli_prints_one_entry(capsys):
    code, out, _ = run(capsys, "rules", "WM-A3")
    assert code == 0
    assert out.splitlines()[0] == "WM-A3 — all sixes hit"
    assert "Rule." in out and "Source." in out and "seed 000" in out and "**" not in out


def test_cli_prints_a_prefix_and_the_index(capsys):
    code, out, _ = run(capsys, "rules", "FB-C")
    assert code == 0 and out.count("FB-C") >= 7 and "FB-H1 —" not in out
    code, out, _ = run(capsys, "rules")
    assert code == 0 and "WM-A3" in out and "MG-10" in out and "PR-3" in out


def test_cli_unknown_id_is_one_line_exit_2(capsys):
    code, out, err = run(capsys, "rules", "WM-A33")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "WM-A3" in err


def test_the_readme_is_a_front_door_and_its_links_resolve():
    """Issue 27 part 7: the README stays short; every relative link of the README and the
    guide points at a file of the repository."""
    import re

    readme = ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 300
    guide = sorted((ROOT / "docs" / "guide").glob("*.md"))
    assert guide
    broken = []
    for doc in [readme, *guide]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            if "://" not in target and not (doc.parent / target).exists():
                broken.append(f"{doc.relative_to(ROOT)} → {target}")
    assert not broken, broken
    linked = set(re.findall(r"\(docs/guide/([\w-]+\.md)\)", readme.read_text(encoding="utf-8")))
    assert linked == {p.name for p in guide}, "every guide page is reachable from the README"
