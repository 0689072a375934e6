"""`pbem admin`: the operator's commands, one module for each family."""
