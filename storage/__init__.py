"""SQLite storage: schema through migrations, queries and writes."""
