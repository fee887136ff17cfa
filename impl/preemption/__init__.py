"""The ProportionalCapacityPreemptionPolicy (inter-queue) of the CapacityScheduler."""
