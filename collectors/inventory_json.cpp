#include "collectors/inventory.h"
