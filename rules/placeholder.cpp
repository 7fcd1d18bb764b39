// replaced by the rules
