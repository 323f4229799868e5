# The stand-in's torch.distributed (see ../__init__.py): importing it is what makes launch's hook dump.
