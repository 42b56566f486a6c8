"""The application layer every front end shares: open, read, search, jobs."""
