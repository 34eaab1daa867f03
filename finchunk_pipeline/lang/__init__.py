"""Languages: what the corpus ``language`` column (ISO 639-1) changes in the pipeline.

One module per idea: ``codes`` (which languages are supported and the fallback for the
others), ``stopwords``, ``numbers`` (locale number normalisation), ``detect`` (a question's
language from its stop words), ``current`` (the language of the document being chunked),
``labels`` (context-header labels per language), ``fold`` (text reduced to letters and digits
for matching, with offsets).
"""
