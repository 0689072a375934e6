"""What every game shares: the `Rules` protocol, errors, phrases, squares and grids."""
