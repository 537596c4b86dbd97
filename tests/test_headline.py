"""The answer first (issue 15): every table view starts with the headline sentence."""

import pytest

from mathhammer.cli import main


def run(capsys, *argv):
    with pytest.raises(SystemExit) as done:
        main(list(argv))
    out = capsys.readouterr()
    return done.value.code, out.out, out.err


def test_table_view_starts_with_the_headline(capsys):
    code, out, _ = run(capsys, "roll", "2D6+3", "--at-least", "10")
    assert code == 0
    assert out.splitlines()[0] == "roll 2D6+3: p_at_least 58.33% (exact)"


def test_brief_prints_only_the_headline(capsys):
    code, out, _ = run(capsys, "roll", "2D6+3", "--at-least", "10", "--brief")
    assert code == 0
    assert out.splitlines() == ["roll 2D6+3: p_at_least 58.33% (exact)"]


def test_brief_with_a_data_format_is_one_line_exit_2(capsys):
    code, out, err = run(capsys, "roll", "2D6", "--brief", "--format", "json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--brief" in err
