"""The one bounded reader and the archive reader (mathhammer.io, issue 18).

Library level: each refusal is one ``InputFileError`` line, raised before the file is
read whole (a FIFO is never opened, a 200 MB file never read). The walk over every
command that takes a file is ``tests/test_hostile_files.py``.
"""

from __future__ import annotations

import io as stdio
import os
import threading
import time
import zipfile
from pathlib import Path

import pytest

from mathhammer import io
from mathhammer.errors import InputFileError, ProfileError
from mathhammer.profiles import MAX_KEY_PARTS, read_toml


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "f.toml"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(InputFileError) as err:
        io.read_text(fifo, "f.toml", what="TOML file")
    assert time.monotonic() - start < 1.0
    assert err.value.one_line() == ("f.toml: is a FIFO (named pipe), not a regular file; "
                                    "fix: give the path of a TOML file")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_before_it_is_read(device):
    with pytest.raises(InputFileError, match="is a character device, not a regular file"):
        io.read_bytes(device)


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(InputFileError, match="is a folder, not a regular file"):
        io.read_bytes(tmp_path)


def test_a_missing_file_and_a_long_name(tmp_path):
    with pytest.raises(InputFileError, match="file not found"):
        io.read_bytes(tmp_path / "none.toml")
    with pytest.raises(InputFileError, match="the file name is too long"):
        io.read_bytes(tmp_path / ("x" * 300))
    with pytest.raises(InputFileError, match="NUL"):
        io.read_bytes("a\0b")


def test_the_size_cap_comes_from_stat_before_reading(tmp_path):
    big = tmp_path / "big.toml"
    with open(big, "wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: 200 MB that costs no disk
    start = time.monotonic()
    with pytest.raises(InputFileError) as err:
        read_toml(big, "big.toml")
    assert time.monotonic() - start < 1.0
    assert err.value.one_line() == (
        "big.toml: is 209,715,200 bytes, above the limit of 1 MB (1,048,576 bytes) for a TOML "
        "file; fix: give a TOML file of at most 1 MB")


def test_the_size_cap_holds_while_reading_a_file_that_lies_about_its_size():
    """/proc files say size 0 and hold more: the read itself stops at the cap."""
    with pytest.raises(InputFileError, match="grew past the 64 bytes limit"):
        io.read_bytes("/proc/self/maps", "maps", limit=64)


def test_a_growing_file_stops_at_the_cap(tmp_path, monkeypatch):
    path = tmp_path / "grows.toml"
    path.write_bytes(b"a = 1\n")
    real_read = os.read

    def read(fd, n):  # the file grows while it is read: every read returns a full block
        return real_read(fd, n) or b"#" * n

    monkeypatch.setattr(os, "read", read)
    with pytest.raises(InputFileError, match="grew past the 1 kB limit"):
        io.read_bytes(path, limit=1024)


def test_invalid_utf8_names_the_byte_offset(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "ok"\ntitle = "caf\xe9"\n')
    with pytest.raises(InputFileError) as err:
        read_toml(path, "latin1.toml")
    assert err.value.one_line() == ("latin1.toml: is not UTF-8 text: byte 0xe9 at offset 24 "
                                    "(line 2); fix: save the TOML file as UTF-8 text")


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbfa = 1\n")
    assert read_toml(path) == {"a": 1}


def test_read_scope_still_applies(tmp_path):
    from mathhammer import read_scope

    path = tmp_path / "x.toml"
    path.write_text("a = 1\n")
    with read_scope.only_under(tmp_path / "elsewhere"), pytest.raises(ProfileError,
                                                                      match="may read"):
        io.read_bytes(path, "x.toml")


def test_names_a_file_never_raises(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    assert io.names_a_file(tmp_path / "fifo")  # the reader refuses it by name
    assert not io.names_a_file(tmp_path)
    assert not io.names_a_file(tmp_path / ("x" * 300))
    assert not io.names_a_file("a\0b")


# --------------------------------------------------------------------------- TOML bounds


def test_a_long_dotted_key_is_refused_before_parsing(tmp_path):
    """60 kB, one key of 30,000 parts: 16.6 s and 3.56 GB in the parser before."""
    path = tmp_path / "dotted.toml"
    path.write_text("a." * 30000 + "a = 1\n")
    start = time.monotonic()
    with pytest.raises(ProfileError, match=f"a dotted key of more than {MAX_KEY_PARTS} parts"):
        read_toml(path)
    assert time.monotonic() - start < 1.0


def test_keys_up_to_the_bound_are_read(tmp_path):
    path = tmp_path / "ok.toml"
    key = ".".join(f"k{i}" for i in range(MAX_KEY_PARTS))
    path.write_text(f'x = 1.5\n{key} = 1\n[{key}x]\nv = "1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16"\n')
    data = read_toml(path)
    assert data["x"] == 1.5


def test_a_list_over_its_cap_names_the_list_its_length_and_the_cap(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('game = "warmachine"\n' + "[[attacks]]\nstat = 6\n" * 3000)
    with pytest.raises(ProfileError) as err:
        read_toml(path, "s.toml")
    assert err.value.one_line() == (
        "s.toml: attacks: the list has 3,000 entries, above its cap of 200; fix: keep attacks "
        "to 200 entries or fewer (split the file into several runs)")


def test_nested_lists_and_tables_are_capped_too(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text("[a]\nmounts = [" + ", ".join(["{x = 1}"] * 11) + "]\n")
    with pytest.raises(ProfileError, match="a.mounts: the list has 11 entries, above its cap of 10"):
        read_toml(path, "m.toml")
    path.write_text("".join(f"k{i} = 1\n" for i in range(1001)))
    with pytest.raises(ProfileError, match="the table has 1,001 keys, above its cap of 1,000"):
        read_toml(path, "m.toml")


def test_deep_nesting_is_one_line(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ProfileError, match="too deeply"):
        read_toml(path)


def test_every_bundled_data_file_is_within_the_bounds():
    from mathhammer.profiles import profiles_root

    root = profiles_root()
    files = list(root.rglob("*.toml")) + list(
        (Path(__file__).resolve().parents[1] / "mathhammer").rglob("*.toml"))
    assert len(files) > 20
    for path in files:
        read_toml(path)  # raises on any bound


# --------------------------------------------------------------------------- archives


def _zip(members: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = stdio.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buf.getvalue()


def test_an_archive_is_read_in_memory(tmp_path):
    path = tmp_path / "army.rosz"
    roster = b"<roster>" + b"<selection/>" * 1000 + b"</roster>"
    path.write_bytes(_zip({"army.ros": roster, "folder/": b""}))
    assert io.read_archive(path) == {"army.ros": roster}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["army.rosz"]  # nothing unpacked


def test_a_zip_bomb_is_refused_from_its_headers_fast():
    bomb = _zip({"bomb.ros": b"\0" * (50 * 1024 * 1024)})  # 50 MB of zeros: ~50 kB packed
    start = time.monotonic()
    with pytest.raises(InputFileError, match="a zip bomb"):
        io.read_archive(bomb, "bomb.rosz")
    assert time.monotonic() - start < 1.0


def test_a_member_whose_header_lies_stops_at_the_declared_size():
    data = bytearray(_zip({"a.ros": b"x" * 100_000}))
    # declare 1,000 bytes in both headers: the unpacking must not pass the declared size
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(sig)
        data[at + offset:at + offset + 4] = (1000).to_bytes(4, "little")
    with pytest.raises(InputFileError):
        io.read_archive(bytes(data), "liar.rosz")


def test_too_many_members_and_too_much_in_all():
    many = _zip({f"m{i}.ros": b"x" for i in range(io.ARCHIVE_MAX_MEMBERS + 1)})
    with pytest.raises(InputFileError, match="above the limit of 64"):
        io.read_archive(many, "many.rosz")
    import random

    noise = random.Random(1).randbytes(3 * 1024 * 1024)  # incompressible: ratio 1
    with pytest.raises(InputFileError, match="unpacks to"):
        io.read_archive(_zip({"a": noise, "b": noise}, zipfile.ZIP_STORED), "big.rosz",
                        max_unpacked=4 * 1024 * 1024)


@pytest.mark.parametrize("name", ["../escape.ros", "/abs.ros", "a/../../b.ros", "C:/x.ros",
                                  "..\\win.ros"])
def test_member_paths_that_escape_are_refused(name):
    with pytest.raises(InputFileError, match="escapes the archive"):
        io.read_archive(_zip({name: b"x"}), "evil.rosz")


def test_not_a_zip_and_an_encrypted_member():
    with pytest.raises(InputFileError, match="is not a readable zip archive"):
        io.read_archive(b"PK\x05\x06 this is not a zip", "x.rosz")
    with pytest.raises(InputFileError, match="is not a readable zip archive"):
        io.read_archive(b"\0" * 100, "x.rosz")
    data = bytearray(_zip({"a.ros": b"x" * 10}))
    for sig, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(sig)
        data[at + offset] |= 1  # the "encrypted" flag bit
    with pytest.raises(InputFileError, match="is encrypted"):
        io.read_archive(bytes(data), "x.rosz")


def test_a_huge_central_directory_is_refused_before_zipfile_parses_it():
    data = bytearray(_zip({"a.ros": b"x"}))
    end = data.rfind(b"PK\x05\x06")
    data[end + 10:end + 12] = (60000).to_bytes(2, "little")  # claims 60,000 entries
    with pytest.raises(InputFileError, match="lists 60000 entries"):
        io.read_archive(bytes(data), "x.rosz")


def test_an_archive_fifo_is_refused(tmp_path):
    fifo = tmp_path / "a.rosz"
    os.mkfifo(fifo)
    done = threading.Event()

    def read():
        with pytest.raises(InputFileError, match="FIFO"):
            io.read_archive(fifo)
        done.set()

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(2)
    assert done.is_set()


# --------------------------------------------------------------------------- paths files name


@pytest.mark.parametrize("unit", ["x" * 300 + ".toml", "../" * 100 + "u.toml", "fifo.toml",
                                  "loop.toml", "/dev/zero"])
def test_a_path_a_scenario_names_goes_through_the_safe_checks(unit, tmp_path):
    """`unit = "<300-character name>.toml"` in a fantasy scenario was an OSError traceback."""
    from tests.test_reliability_harness import assert_clean, run_inprocess

    os.mkfifo(tmp_path / "fifo.toml")
    (tmp_path / "loop.toml").symlink_to("loop.toml")
    scenario = tmp_path / "s.toml"
    scenario.write_text('game = "fantasy"\nkind = "combat"\nruleset = "wfb8"\nrounds = 1\n'
                        f'[a]\nunit = "{unit}"\n[b]\nunit = "wfb8/orc_boyz"\n')
    argv = ["run", str(scenario), "--method", "exact", "-q"]
    start = time.monotonic()
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2 and time.monotonic() - start < 5
