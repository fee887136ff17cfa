"""What ``yarnspec config`` says about a configuration: key warnings and differences."""
