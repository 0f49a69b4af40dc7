/* model/rank_log: records come back per rank, in order, across blocks. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model/spool.h"

typedef struct {
  guint32 rank;
  guint64 seq;
} Record;

/* Three ranks appended to in an interleaving that is not round-robin, with
 * blocks of 4 records, so that ranks own several blocks, the last ones
 * partial, and one rank has no record at all. */
static void
test_interleaved_ranks (void **state)
{
  GError *error = NULL;
  g_autoptr (TsSpool) log = ts_spool_new (4, sizeof (Record), 4 * sizeof (Record), &error);
  assert_non_null (log);
  const guint64 counts[4] = { 10, 3, 0, 9 };
  guint64 next[4] = { 0 };
  for (guint step = 0; step < 40; step++)
    {
      guint r = (step * 7 + step / 3) % 4;
      if (next[r] == counts[r])
        continue;
      Record rec = { r, next[r]++ };
      ts_spool_append (log, r, &rec);
    }
  for (guint r = 0; r < 4; r++)
    while (next[r] < counts[r])
      {
        Record rec = { r, next[r]++ };
        ts_spool_append (log, r, &rec);
      }
  assert_true (ts_spool_finish (log, &error));

  /* Two readers of the same rank are independent. */
  g_autoptr (TsSpoolReader) again = ts_spool_reader_new (log, 0);
  for (guint r = 0; r < 4; r++)
    {
      assert_int_equal (ts_spool_count (log, r), counts[r]);
      g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (log, r);
      const Record *rec;
      guint64 seen = 0;
      while ((rec = ts_spool_reader_next (rd, &error)))
        {
          assert_int_equal (rec->rank, r);
          assert_int_equal (rec->seq, seen);
          seen++;
        }
      assert_null (error);
      assert_int_equal (seen, counts[r]);
    }
  const Record *first = ts_spool_reader_next (again, &error);
  assert_non_null (first);
  assert_int_equal (first->seq, 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_interleaved_ranks),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
