"""Sources of raw documents (a local corpus folder, SEC EDGAR over HTTP) and the raw store."""
