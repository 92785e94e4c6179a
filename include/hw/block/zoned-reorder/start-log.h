/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the last starts of a device, oldest first.
 *
 * A device records one 32-bit entry per command it starts (what an entry
 * means is the device's: a slot, a queue and a tag) and shows the log as
 * a QOM property, so that a test reads the start order a policy gave.
 * The log keeps the last ZR_START_LOG_LEN entries in a ring: a start
 * costs a store, not a move of the whole log.  Migration streams carry
 * the entries oldest first from index 0 and the count
 * (zr_start_log_linearize() before the save, zr_start_log_loaded() after
 * the load), the layout a plain array had.
 */

#ifndef HW_BLOCK_ZONED_REORDER_START_LOG_H
#define HW_BLOCK_ZONED_REORDER_START_LOG_H

#define ZR_START_LOG_LEN    32

typedef struct ZrStartLog {
    uint32_t entry[ZR_START_LOG_LEN];
    uint32_t n;                 /* entries held */
    uint32_t head;              /* the oldest one's index */
} ZrStartLog;

static inline void zr_start_log_add(ZrStartLog *l, uint32_t e)
{
    if (l->n < ZR_START_LOG_LEN) {
        l->entry[(l->head + l->n++) % ZR_START_LOG_LEN] = e;
    } else {
        /* full: the newest takes the oldest's place */
        l->entry[l->head] = e;
        l->head = (l->head + 1) % ZR_START_LOG_LEN;
    }
}

/* How many entries there are (a count a failed load left is bounded) */
static inline uint32_t zr_start_log_len(const ZrStartLog *l)
{
    return MIN(l->n, ZR_START_LOG_LEN);
}

/* Entry @i, 0 the oldest (@i < zr_start_log_len()) */
static inline uint32_t zr_start_log_get(const ZrStartLog *l, uint32_t i)
{
    return l->entry[(l->head + i) % ZR_START_LOG_LEN];
}

static inline void zr_start_log_clear(ZrStartLog *l)
{
    l->n = 0;
    l->head = 0;
}

/* Before a save: the entries oldest first from index 0 */
static inline void zr_start_log_linearize(ZrStartLog *l)
{
    uint32_t tmp[ZR_START_LOG_LEN], i;

    for (i = 0; i < ZR_START_LOG_LEN; i++) {
        tmp[i] = l->entry[(l->head + i) % ZR_START_LOG_LEN];
    }
    memcpy(l->entry, tmp, sizeof(tmp));
    l->head = 0;
}

/* After a load: false (and the log emptied) if the saved count does not fit */
static inline bool zr_start_log_loaded(ZrStartLog *l)
{
    l->head = 0;
    if (l->n > ZR_START_LOG_LEN) {
        l->n = 0;
        return false;
    }
    return true;
}

#endif
