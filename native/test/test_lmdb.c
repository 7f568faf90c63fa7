#include "ferry.h"
int main(void) { return 0; }
