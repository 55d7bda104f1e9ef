"""From the change spec to a plan: auto mode's choice, the regions a plan is made of, exact renames."""
