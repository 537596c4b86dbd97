"""The to-hit, to-wound and save chain (FB-H, FB-W, FB-V): rules tables, the exact engine, the
Monte Carlo chunk and the queries behind ``fb attack`` / ``fb shoot``."""
