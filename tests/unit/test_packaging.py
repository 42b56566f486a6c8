"""A built wheel, installed in a fresh virtual environment, runs ``specbrowser demo``.

The sample spec ships in the wheel as the package ``specbrowser.sample_specs`` (pyproject.toml
maps it to the top-level ``sample_specs/`` folder; setup.py lists it); the demo reads it with
``importlib.resources``. The test builds the wheel from a copy of the source (so no ``build/``
or ``*.egg-info`` lands in the checkout) without build isolation (offline: it needs the
setuptools of pyproject's build-system, which the test extra installs).

The venv is made without ``--system-site-packages``: that option shows the *base* interpreter's
packages, which inside a virtual environment are not the ones the suite runs with. Instead a
``.pth`` file lists the site-packages folders of the interpreter running the suite (inside a venv
or not), and the wheel is installed *with* its dependencies and ``--no-index``: pip resolves every
requirement of the wheel's metadata against those folders, so a missing or too old dependency
fails the install, offline. The directories a ``.pth`` line adds are not site directories, so the
editable install's own ``.pth`` finder is not loaded and the venv imports its own copy. It skips,
saying why, where the wheel cannot be built.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

from tests.helpers import ROOT

SOURCE = ["pyproject.toml", "setup.py", "README.md", "specbrowser", "sample_specs"]
"""What the build reads: the project's configuration, its readme and its packages."""


def why_no_build() -> str | None:
    """Why the wheel cannot be built here without build isolation, or None."""
    wanted = re.search(r'requires = \["setuptools>=(\d+)', (ROOT / "pyproject.toml").read_text())
    try:
        have = metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        return "setuptools is not installed (pip install -e '.[test]' installs it)"
    if wanted and int(have.split(".")[0]) < int(wanted.group(1)):
        return (
            f"building needs setuptools>={wanted.group(1)} (pyproject's build-system), found "
            f"{have}: pip install -e '.[test]' installs it"
        )
    if int(metadata.version("pip").split(".")[0]) < 23:
        return "pip is older than 23 (no --python option to install into the venv)"
    return None


PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
"""Prints an interpreter's own site-packages folder."""


def suite_site_packages() -> list[str]:
    """The site-packages folders of the interpreter running the suite, in import order."""
    folders = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    folders += [sysconfig.get_paths()["platlib"]]
    return list(dict.fromkeys(f for f in folders if Path(f).is_dir()))


def run(*args: str | Path, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run a command; fail the test with its output if it fails."""
    result = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, check=False, **kwargs
    )
    assert result.returncode == 0, f"{args} exited {result.returncode}:\n{result.stderr}"
    return result


def test_demo_runs_from_a_wheel_in_a_fresh_venv(tmp_path: Path) -> None:
    reason = why_no_build()
    if reason:
        pytest.skip(reason)
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCE:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    run(*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", "dist", source,
        cwd=tmp_path)  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("specbrowser-*.whl")

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / ("python.exe" if os.name == "nt" else "python")
    venv_site = Path(run(python, "-c", PURELIB).stdout.strip())
    (venv_site / "suite_packages.pth").write_text("\n".join(suite_site_packages()) + "\n")
    run(*pip, "--python", python, "install", "--no-index", wheel)

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    where = run(
        python,
        "-c",
        "import specbrowser.cli.app as a; print(a.__file__); print(a.sample_spec_path())",
        cwd=tmp_path,
        env=env,
    ).stdout.splitlines()
    site_packages = next(venv.glob("lib*/**/site-packages"), venv)
    assert all(Path(line).is_relative_to(site_packages) for line in where), where

    demo = run(bin_dir / "specbrowser", "demo", "--no-open", cwd=tmp_path, env=env)
    assert "Toylang" in demo.stdout
    assert list((tmp_path / "cache" / "specbrowser").glob("*.db")), demo.stdout
