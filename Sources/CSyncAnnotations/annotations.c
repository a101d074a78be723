#include "CSyncAnnotations.h"
