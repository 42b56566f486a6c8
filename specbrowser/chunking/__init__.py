"""The chunking library: (sections, policy) -> chunk set. Pure: no database, no front end."""
