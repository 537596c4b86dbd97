"""read_scope: a host can confine every data-file read to named folders (issue 16 part 5)."""

from __future__ import annotations

import pytest

from mathhammer import read_scope
from mathhammer.errors import ProfileError
from mathhammer.profiles import load_profile, profiles_root, read_toml


def test_reads_are_unrestricted_by_default(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text('a = 1\n', encoding="utf-8")
    assert read_toml(path) == {"a": 1}


def test_a_file_outside_the_roots_is_refused_before_it_is_opened(tmp_path):
    path = tmp_path / "secret.toml"
    path.write_text('a = 1\n', encoding="utf-8")
    with read_scope.only_under(profiles_root()), pytest.raises(ProfileError) as err:
        read_toml(path)
    assert "is not a file this server may read" in err.value.one_line()
    assert "a = 1" not in err.value.one_line()


def test_a_symlink_into_the_roots_from_outside_is_judged_by_its_target(tmp_path):
    outside = tmp_path / "outside.toml"
    outside.write_text('a = 1\n', encoding="utf-8")
    inside = tmp_path / "root"
    inside.mkdir()
    (inside / "link.toml").symlink_to(outside)
    with read_scope.only_under(inside), pytest.raises(ProfileError):
        read_toml(inside / "link.toml")


def test_bundled_profiles_still_load_inside_the_roots():
    with read_scope.only_under(profiles_root()):
        assert load_profile("warmachine", "khador/juggernaut").name


def test_the_restriction_ends_with_the_block(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text('a = 2\n', encoding="utf-8")
    with read_scope.only_under(profiles_root()):
        pass
    assert read_toml(path) == {"a": 2}
