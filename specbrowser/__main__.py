"""Allow ``python -m specbrowser``."""

from specbrowser.cli import main

raise SystemExit(main())
