/* Builders of the records ferry_store_open takes, shared by the engines' native tests. Static: each test
 * program includes this once. */
#ifndef FERRY_TEST_RECORDS_H
#define FERRY_TEST_RECORDS_H

#include "ferry.h"

#include <stdint.h>
#include <string.h>

/* Append a ferry_store_open family record to b at *n (options: -1 but the key order). */
static inline void order_rec(uint8_t *b, size_t *n, const char *name, int64_t order)
{
    int64_t o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, order, -1, -1 };
    uint32_t nl = (uint32_t)strlen(name), el = 0;
    memcpy(b + *n, &nl, 4);
    memcpy(b + *n + 4, &el, 4);
    memcpy(b + *n + 8, o, sizeof o);
    memcpy(b + *n + FERRY_CFDESC_HEADER, name, nl);
    *n += FERRY_CFDESC_HEADER + nl;
}

#endif
