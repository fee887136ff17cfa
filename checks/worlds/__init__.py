"""World files and plug-ins from the command line and from other projects."""
