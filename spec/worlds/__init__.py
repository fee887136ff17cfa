"""The one world catalogue: the shipped world files, their reader and the scenarios they define."""
