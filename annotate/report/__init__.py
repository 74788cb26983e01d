"""Reports as data (`model.Report`) built from the analysis (`build`) and rendered as terminal text,
Markdown, self-contained HTML or JSON (`render`)."""
