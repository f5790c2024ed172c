token = "heldout-tfvars-marker"
