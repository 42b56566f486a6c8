"""The package list, which pyproject.toml cannot express: every ``specbrowser*`` package under
this folder, plus ``specbrowser.sample_specs``, which pyproject.toml maps (``package-dir``) to
the top-level ``sample_specs/`` folder so the sample specs ship in the wheel from where they
live. Everything else is configured in pyproject.toml."""

from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["specbrowser*"]), "specbrowser.sample_specs"])
