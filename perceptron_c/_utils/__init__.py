"""What every wing uses: the parameter checks (`_params`), the input checks and the labels
(`_validation`), the rows of a matrix in the routines' layout (`_rows`), the thread pool and
the thread guard (`_threads`), the numpy archive reader (`_npzfile`) and the docstring pieces
(`_docs`). Nothing here imports an estimator."""
