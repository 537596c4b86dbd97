"""Close combat (FB-C1..C7): the fight compiled to arrays, its exact and Monte Carlo
engines, characters and challenges, war machines, and whole game turns."""
