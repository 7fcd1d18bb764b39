// replaced by the probe implementation
