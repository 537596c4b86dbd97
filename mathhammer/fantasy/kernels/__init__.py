"""numba kernels of the Fantasy engines (the to-hit/wound/save chain, combat rounds,
artillery): numbers in, counts out; numpy and numba only (docs/design.md, "Kernels").
Loaded through :func:`mathhammer.kernels.load`, which announces a first compile."""

import mathhammer.kernels  # noqa: F401  (first: it points numba at its cache folder before numba loads)
