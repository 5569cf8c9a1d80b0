"""The package's constants and enums equal include/tutti.h's (parsed with a regex), and the
package declares only functions the header has."""

import re

import tutti
from tutti import constants
from tutti._native import DECLARED
from conftest import header_path

DEFINE = re.compile(r"^#define (TUTTI_\w+) (0x[0-9A-Fa-f]+|\d+)u?\b", re.M)
ENUM_VALUE = re.compile(r"\b(TUTTI_[A-Z0-9_]+)\s*=\s*(-?\d+)")


def header_constants() -> dict:
    text = header_path().read_text()
    found = {name: int(value, 0) for name, value in DEFINE.findall(text)}
    enum_bodies = re.findall(r"enum\s*\{(.*?)\}", text, re.S)
    for body in enum_bodies:
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        for name, value in ENUM_VALUE.findall(body):
            found[name] = int(value)
    return found


def test_every_header_constant_is_in_the_package_with_its_value():
    header = header_constants()
    assert len(header) > 100, f"the regex found only {len(header)} constants"
    missing = sorted(set(header) - set(vars(constants)))
    assert not missing, f"run bindings/python/tools/update_constants.py (then add enum members if named): {missing}"
    wrong = {n: (getattr(constants, n), v) for n, v in header.items() if getattr(constants, n) != v}
    assert not wrong, f"package value != header value: {wrong}"


def test_the_package_has_no_constant_the_header_lacks():
    header = header_constants()
    text = header_path().read_text()
    ours = [n for n in vars(constants) if n.startswith("TUTTI_")]
    extra = [n for n in ours if n not in header and not re.search(rf"#define {n}\b", text)]
    assert not extra, extra
    # The expression macros, evaluated.
    assert re.search(r"#define TUTTI_NOW \(\(tutti_frame\)-1\)", text) and constants.TUTTI_NOW == -1
    assert constants.TUTTI_VERSION == tutti._lib.tutti_version()
    assert constants.TUTTI_REMOTE_COMMAND_BIT(3) == 8


def test_enum_members_are_the_header_values():
    header = header_constants()
    for enum_class, prefix in tutti.ENUM_PREFIXES.items():
        for member in enum_class:
            assert header[prefix + member.name] == member.value, f"{enum_class.__name__}.{member.name}"
        # Completeness: every header constant with the prefix is a member (TUTTI_SOURCE_LOOP and
        # TUTTI_EVENT_SHOULD_RESUME are bits of other arguments, not members).
        others = {"TUTTI_SOURCE_LOOP", "TUTTI_EVENT_SHOULD_RESUME"}
        names = {n for n in header if n.startswith(prefix) and n not in others}
        names = {n for n in names if not any(n.startswith(p) for p in tutti.ENUM_PREFIXES.values() if len(p) > len(prefix))}
        assert names == {prefix + m.name for m in enum_class}, enum_class.__name__
    for member in tutti.Result:
        c_name = "TUTTI_OK" if member.name == "OK" else "TUTTI_ERROR_" + member.name
        assert header[c_name] == member.value
        assert tutti._lib.tutti_result_string(member).decode() == member.name
    for member in tutti.Focus:
        assert member.value == (0 if member.name == "GAIN" else header["TUTTI_FOCUS_" + member.name])


def test_declared_functions_are_the_headers():
    text = header_path().read_text()
    for name in DECLARED:
        assert re.search(rf"\b{name}\s*\(", text), f"{name} is not in include/tutti.h"


def test_every_header_function_is_wrapped():
    """Python = C: each function include/tutti.h declares has its prototype in the package."""
    text = re.sub(r"/\*.*?\*/", "", header_path().read_text(), flags=re.S)
    declared = set(re.findall(r"^\s*(?:const\s+)?[a-z_0-9]+\s*\*?\s*(tutti_[a-z0-9_]+)\s*\(", text, re.M))
    assert len(declared) > 60, f"the regex found only {len(declared)} functions"
    missing = sorted(declared - set(DECLARED))
    assert not missing, f"functions of include/tutti.h the package does not wrap: {missing}"


def test_package_version_is_the_headers():
    header = header_constants()
    major, minor, patch = (header[f"TUTTI_VERSION_{p}"] for p in ("MAJOR", "MINOR", "PATCH"))
    assert tutti.__version__ == f"{major}.{minor}.{patch}"


def test_pyproject_version_is_the_headers():
    import pathlib

    candidates = [
        header_path().parents[1] / "bindings" / "python" / "pyproject.toml",  # the checkout's
        pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml",  # beside these tests
    ]
    pyproject = next(p for p in candidates if p.exists())
    version = re.search(r'^version = "([^"]+)"$', pyproject.read_text(), re.M).group(1)
    assert version == tutti.__version__


def test_struct_layouts_are_the_librarys():
    """Each ..._init_size given room writes the library's sizeof into struct_size: our ctypes layouts match."""
    import ctypes

    from tutti import _native

    for struct, init in (
        (_native.EngineConfig, tutti._lib.tutti_engine_config_init_size),
        (_native.SourceInfo, tutti._lib.tutti_source_info_init_size),
        (_native.Stats, tutti._lib.tutti_stats_init_size),
        (_native.OutputConfig, tutti._lib.tutti_output_config_init_size),
    ):
        buffer = (ctypes.c_uint8 * constants.TUTTI_MAX_STRUCT_SIZE)()
        init(ctypes.byref(buffer), constants.TUTTI_MAX_STRUCT_SIZE)
        assert ctypes.c_uint32.from_buffer(buffer).value == ctypes.sizeof(struct), struct.__name__
    assert ctypes.sizeof(_native.RawEvent) == 40  # int32 ×3, int64, uint64 ×2 on LP64
    # The arrays the package passes: as include/tutti.h lays them out on LP64.
    assert ctypes.sizeof(_native.Interaction) == 32  # uint64, int32 (+ padding), uint64, int32 ×2
    assert ctypes.sizeof(_native.DuckingRule) == 40  # uint64, int32, uint64, int32, float ×3
    assert ctypes.sizeof(_native.Effect) == 96  # int32 (+ padding), double ×11
