"""The sample specifications (see README.md here), shipped inside the installed package as
``specbrowser.sample_specs``: pyproject.toml maps that package to this folder, so the files
have one copy. Read them with ``importlib.resources.files("specbrowser.sample_specs")``."""
