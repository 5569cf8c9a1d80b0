"""A PEP 517 build backend for the pure-Python `tutti` package, standard library only.

Why not setuptools: setuptools before 70.1 cannot build a wheel without the separate `wheel`
package, which many Pythons lack (this project's CI Python has setuptools 65 and no `wheel`),
and `pip install --no-build-isolation --no-deps ./bindings/python` must work offline. The
package is a directory of .py files, so a wheel is a zip of them plus three metadata files
(PEP 427); this module writes exactly that. The version is the header's, read from
tutti/constants.py (TUTTI_VERSION_*), so the package and the library it wraps agree.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "tutti"
SUMMARY = (
    "Python bindings (ctypes, no compile step) for libtutti, a real-time audio mixing engine "
    "with a phone-style audio policy"
)
TAG = "py3-none-any"


def _version() -> str:
    text = open(os.path.join(ROOT, "tutti", "constants.py"), encoding="utf-8").read()
    parts = [re.search(rf"^TUTTI_VERSION_{p} = (\d+)$", text, re.M).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def _dist_info() -> str:
    return f"{NAME}-{_version()}.dist-info"


def _metadata() -> str:
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {_version()}\n"
        f"Summary: {SUMMARY}\n"
        "Requires-Python: >=3.9\n"
        "Requires-Dist: numpy\n"
        "Provides-Extra: test\n"
        "Requires-Dist: pytest; extra == \"test\"\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: tutti_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _package_files():
    package = os.path.join(ROOT, "tutti")
    for name in sorted(os.listdir(package)):
        if name.endswith(".py") or name == "py.typed":
            yield f"tutti/{name}", open(os.path.join(package, name), "rb").read()


def _write_wheel(directory: str, files) -> str:
    filename = f"{NAME}-{_version()}-{TAG}.whl"
    files = list(files) + [
        (f"{_dist_info()}/METADATA", _metadata().encode()),
        (f"{_dist_info()}/WHEEL", _wheel_file().encode()),
    ]
    record = []
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            wheel.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append(f"{_dist_info()}/RECORD,,")
        wheel.writestr(zipfile.ZipInfo(f"{_dist_info()}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")
    return filename


# -- PEP 517 / PEP 660 hooks ---------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    target = os.path.join(metadata_directory, _dist_info())
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "METADATA"), "w", encoding="utf-8") as out:
        out.write(_metadata())
    with open(os.path.join(target, "WHEEL"), "w", encoding="utf-8") as out:
        out.write(_wheel_file())
    return _dist_info()


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install: a .pth file that puts this directory on sys.path."""
    return _write_wheel(wheel_directory, [(f"__editable__.{NAME}.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for rel in ["pyproject.toml", "README.md", "build_backend/tutti_build.py"] + [p for p, _ in _package_files()]:
            data = open(os.path.join(ROOT, rel), "rb").read()
            info = tarfile.TarInfo(f"{base}/{rel}")
            info.size = len(data)
            info.mtime = 1577836800
            sdist.addfile(info, io.BytesIO(data))
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        info.mtime = 1577836800
        sdist.addfile(info, io.BytesIO(pkg_info))
    return filename
