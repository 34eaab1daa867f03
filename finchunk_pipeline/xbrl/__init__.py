"""Tagged XBRL facts: companyfacts JSON -> rows (companyfacts), a DuckDB facts store
(store), point-in-time look-ups (pit), derived quarters (quarters) and point-in-time
question answering (answer)."""
