/* model/rank_log: records come back per rank, in order, across blocks. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model/spool.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* Without padding: records are packed word by word, and padding bytes
 * left uninitialised would be packed as they are. */
typedef struct {
  guint64 rank;
  guint64 seq;
} Record;

/* The index of @log exported into a temporary file (removed at once),
 * and in *@end the bytes written. */
static GVariant *
export_index (const TsSpool *log, guint64 *end)
{
  GError *error = NULL;
  char path[] = "/tmp/tracesim-test-spool-XXXXXX";
  int fd = g_mkstemp (path);
  assert_true (fd >= 0);
  g_unlink (path);
  GVariant *index = ts_spool_export (log, fd, end, &error);
  close (fd);
  assert_null (error);
  assert_non_null (index);
  return g_variant_ref_sink (index);
}

/* Ensure that each of @n ranks of the finished @log holds @counts[rank]
 * records {rank, 0}, {rank, 1}, ... in that order. */
static void
check_ranks (const TsSpool *log, const guint64 *counts, guint n)
{
  GError *error = NULL;
  for (guint r = 0; r < n; r++)
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
}

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
  check_ranks (log, counts, 4);
  const Record *first = ts_spool_reader_next (again, &error);
  assert_non_null (first);
  assert_int_equal (first->seq, 0);
}

/* Records are packed as differences from the previous record: every kind of
 * difference must come back exactly. Each record has a word that jumps
 * between 0 and G_MAXUINT64 (the largest difference, 8 bytes, and its
 * negative), a counter (1 byte), a word that never changes (0 bytes) and a
 * double that goes through NaN, -0.0 and infinities; blocks of 64 bytes
 * hold a few records each, so that packing crosses many blocks. */
typedef struct {
  guint64 jump;
  guint64 counter;
  guint64 constant;
  double value;
} Wide;

static Wide
wide (guint64 i)
{
  static const double values[] = { 1.5, -0.0, NAN, INFINITY, -INFINITY, 1e-300, 3.0 };
  return (Wide) { (i % 3 == 0) ? 0 : G_MAXUINT64 - i, i, 0x0123456789abcdefull,
                  values[i % G_N_ELEMENTS (values)] };
}

static void
test_packing_is_exact (void **state)
{
  GError *error = NULL;
  g_autoptr (TsSpool) log = ts_spool_new (2, sizeof (Wide), 64, &error);
  assert_non_null (log);
  for (guint64 i = 0; i < 1000; i++)
    {
      Wide w = wide (i);
      ts_spool_append (log, (guint) (i % 2), &w);
    }
  assert_true (ts_spool_finish (log, &error));
  for (guint r = 0; r < 2; r++)
    {
      g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (log, r);
      const Wide *got;
      guint64 i = r;
      while ((got = ts_spool_reader_next (rd, &error)))
        {
          Wide want = wide (i);
          /* Bit for bit: NaN and -0.0 included. */
          assert_memory_equal (got, &want, sizeof want);
          i += 2;
        }
      assert_null (error);
      assert_int_equal (i, 1000 + r);
    }
}

/* A damaged spool (a cache file, say) is an error when read, never a
 * crash: a header claiming more bytes than its block holds is refused. */
/* Ten records of rank 0 exported into an unlinked file (@fd, @end bytes):
 * its index, as a first pass's cache keeps them. */
static GVariant *
export_ten (int *fd, guint64 *end)
{
  GError *error = NULL;
  g_autoptr (TsSpool) log = ts_spool_new (1, sizeof (Wide), 4096, &error);
  for (guint64 i = 0; i < 10; i++)
    {
      Wide w = wide (i);
      ts_spool_append (log, 0, &w);
    }
  assert_true (ts_spool_finish (log, &error));
  char path[] = "/tmp/tracesim-test-spool-XXXXXX";
  *fd = g_mkstemp (path);
  assert_true (*fd >= 0);
  g_unlink (path);
  *end = 0;
  GVariant *index = g_variant_ref_sink (ts_spool_export (log, *fd, end, &error));
  assert_non_null (index);
  return index;
}

static void
test_damage_is_an_error (void **state)
{
  GError *error = NULL;
  int fd;
  guint64 end;
  g_autoptr (GVariant) index = export_ten (&fd, &end);
  /* The first record's header: every word claims 15 bytes. */
  const guint8 damage[2] = { 0xff, 0xff };
  assert_int_equal (pwrite (fd, damage, sizeof damage, 0), sizeof damage);
  g_autoptr (TsSpool) back = ts_spool_import (fd, end, index, 1, sizeof (Wide), &error);
  close (fd);
  assert_non_null (back);
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (back, 0);
  assert_null (ts_spool_reader_next (rd, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA));
  g_clear_error (&error);
}

/* A cache whose index counts more records than its blocks hold (11 for
 * 10) is an error at the end of the blocks, not a short read. */
static void
test_count_checked (void **state)
{
  GError *error = NULL;
  int fd;
  guint64 end;
  g_autoptr (GVariant) index = export_ten (&fd, &end);
  guint64 size, count;
  guint32 block;
  g_autoptr (GVariant) offsets = NULL, lens = NULL;
  g_autoptr (GVariant) ranks = g_variant_get_child_value (index, 2);
  g_autoptr (GVariant) rank = g_variant_get_child_value (ranks, 0);
  g_variant_get (index, "(tu@a(tatau))", &size, &block, NULL);
  g_variant_get (rank, "(t@at@au)", &count, &offsets, &lens);
  assert_int_equal (count, 10);
  GVariant *entry = g_variant_new ("(t@at@au)", count + 1, offsets, lens);
  g_autoptr (GVariant) wrong = g_variant_ref_sink (
    g_variant_new ("(tu@a(tatau))", size, block,
                   g_variant_new_array (G_VARIANT_TYPE ("(tatau)"), &entry, 1)));
  g_autoptr (TsSpool) back = ts_spool_import (fd, end, wrong, 1, sizeof (Wide), &error);
  close (fd);
  assert_non_null (back);
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (back, 0);
  guint n = 0;
  while (ts_spool_reader_next (rd, &error))
    n++;
  assert_int_equal (n, 10);
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA));
  g_clear_error (&error);
}

/* A reader on another thread while records are appended: it gets every
 * record in order as blocks are written, waits for the next one, and sees
 * the end only once the spool is finished (the last block, partial, is
 * written then). 1000 records of 32 bytes in blocks of 4. */
typedef struct {
  TsSpool *log;
  guint64 seen;
  gboolean in_order;
} LiveReader;

static gpointer
live_reader_main (gpointer data)
{
  LiveReader *lr = data;
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (lr->log, 1);
  const Wide *w;
  GError *error = NULL;
  lr->in_order = TRUE;
  while ((w = ts_spool_reader_next (rd, &error)))
    {
      Wide want = wide (lr->seen);
      lr->in_order &= memcmp (w, &want, sizeof want) == 0;
      lr->seen++;
    }
  lr->in_order &= error == NULL;
  return NULL;
}

static void
test_reading_while_appended (void **state)
{
  GError *error = NULL;
  g_autoptr (TsSpool) log = ts_spool_new (2, sizeof (Wide), 4 * sizeof (Wide), &error);
  LiveReader lr = { log, 0, FALSE };
  GThread *reader = g_thread_new ("reader", live_reader_main, &lr);
  for (guint64 i = 0; i < 1000; i++)
    {
      Wide w = wide (i);
      ts_spool_append (log, 1, &w);
      if (i % 97 == 0)
        g_usleep (100);  /* let the reader catch up and wait */
    }
  assert_true (ts_spool_finish (log, &error));
  g_thread_join (reader);
  assert_int_equal (lr.seen, 1000);
  assert_true (lr.in_order);
}

/* Ensure that a rank holds a buffer for what it has, not a block: 300
 * records of one rank, in blocks of at most 272 bytes, whose append buffer
 * grows from two worst records by doubling, and whose records come back
 * across the growths and the blocks.
 *
 * A Record is 2 words: a header of 1 byte (a nibble per word) and at worst
 * 16 bytes, so a worst record is 17 bytes and the first buffer 34. Record
 * k (k = 0, 1, ...) is {0, k}: the first packs against zeros into its
 * header alone (1 byte), each next into its header and the seq's
 * difference 1, zigzagged to 2, in 1 byte (2 bytes). After k records the
 * buffer holds 2k - 1 bytes; it grows (or, at 272, is written out) when the
 * next worst record would not fit: fill + 17 > capacity. */
static void
test_buffers_fit_the_rank (void **state)
{
  GError *error = NULL;
  g_autoptr (TsSpool) log = ts_spool_new (2, sizeof (Record), 16 * 17, &error);
  assert_non_null (log);
  /* Nothing appended: nothing held. */
  assert_int_equal (ts_spool_buffer_bytes (log), 0);
  guint64 k = 0;
  /* Bytes held after n records, with the 8 bytes of slack a buffer has:
   * 34 up to 10 records (fill 19 > 34 - 17 when the 11th comes), 68 up to
   * 27 (fill 53 > 51), 136 up to 61 (fill 121 > 119), then 272. Before the
   * buffer grew, one record held a whole block: 280. */
  const struct { guint64 records; gsize held; } steps[] = {
    { 1, 34 + 8 }, { 10, 34 + 8 }, { 11, 68 + 8 }, { 27, 68 + 8 }, { 28, 136 + 8 },
    { 61, 136 + 8 }, { 62, 272 + 8 }, { 300, 272 + 8 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      for (; k < steps[i].records; k++)
        ts_spool_append (log, 0, &(Record) { 0, k });
      assert_int_equal (ts_spool_buffer_bytes (log), steps[i].held);
    }
  /* Rank 1, one record: its own first buffer beside rank 0's. */
  ts_spool_append (log, 1, &(Record) { 1, 0 });
  assert_int_equal (ts_spool_buffer_bytes (log), 272 + 8 + 34 + 8);
  assert_true (ts_spool_finish (log, &error));
  assert_int_equal (ts_spool_buffer_bytes (log), 0);

  /* Rank 1's reader holds its one block of 2 bytes ({1, 0} against zeros:
   * the header and the rank's difference 1, zigzagged to 2, in 1 byte),
   * with a worst record and slack beyond it (2 + 17 + 8), and nothing once
   * it has seen the end; before, it held 272 + 17 + 8 from the first
   * record on. */
  g_autoptr (TsSpoolReader) one = ts_spool_reader_new (log, 1);
  assert_int_equal (ts_spool_reader_buffer_bytes (one), 0);
  const Record *rec = ts_spool_reader_next (one, &error);
  assert_non_null (rec);
  assert_int_equal (rec->rank, 1);
  assert_int_equal (ts_spool_reader_buffer_bytes (one), 2 + 17 + 8);
  assert_null (ts_spool_reader_next (one, &error));
  assert_null (error);
  assert_int_equal (ts_spool_reader_buffer_bytes (one), 0);

  /* Rank 0's blocks: the first written when the 130th record came (fill
   * 2 x 129 - 1 = 257 > 272 - 17, where 255 after 128 still left room),
   * then 128 records of 2 bytes (256 > 255 when the 129th of the block
   * came) and the last 43 (86 bytes). Its reader holds the first, the
   * largest, from the first record on: 257 + 17 + 8. */
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (log, 0);
  for (guint64 j = 0; j < 300; j++)
    {
      rec = ts_spool_reader_next (rd, &error);
      assert_non_null (rec);
      assert_int_equal (rec->rank, 0);
      assert_int_equal (rec->seq, j);
      assert_int_equal (ts_spool_reader_buffer_bytes (rd), 257 + 17 + 8);
    }
  assert_null (ts_spool_reader_next (rd, &error));
  assert_null (error);

  guint64 end = 0;
  g_autoptr (GVariant) index = export_index (log, &end);
  g_autoptr (GVariant) ranks = g_variant_get_child_value (index, 2);
  g_autoptr (GVariant) rank0 = g_variant_get_child_value (ranks, 0);
  g_autoptr (GVariant) lens_v = g_variant_get_child_value (rank0, 2);
  gsize n = 0;
  const guint32 *lens = g_variant_get_fixed_array (lens_v, &n, sizeof (guint32));
  assert_int_equal (n, 3);
  assert_int_equal (lens[0], 257);
  assert_int_equal (lens[1], 256);
  assert_int_equal (lens[2], 86);
  /* 257 + 256 + 86 for rank 0, 2 for rank 1. */
  assert_int_equal (end, 601);
}

/* Ensure that many ranks share a budget: at 131,072 ranks a block of the
 * 16 KiB asked for would be 2 GiB of buffers. 32 MiB / 131,072 = 256
 * bytes, more than two worst records of 8 words (2 x (4 + 64) = 136):
 * blocks of 256 bytes. With 4 ranks the budget leaves the 16 KiB asked for,
 * and with 2^18 ranks (a share of 128 bytes, less than 136) blocks hold two
 * worst records. (Not more ranks: each has its own block index, and 2^24 of
 * them outgrew the memory of a sanitized build.) */
typedef struct {
  guint64 w[8];
} Action;

static guint32
block_bytes_of (guint n_ranks)
{
  GError *error = NULL;
  g_autoptr (TsSpool) log = ts_spool_new (n_ranks, sizeof (Action), 16384, &error);
  assert_non_null (log);
  assert_true (ts_spool_finish (log, &error));
  guint64 end = 0;
  g_autoptr (GVariant) index = export_index (log, &end);
  guint64 size;
  guint32 block;
  g_variant_get (index, "(tu@a(tatau))", &size, &block, NULL);
  return block;
}

static void
test_blocks_share_a_budget (void **state)
{
  assert_int_equal (block_bytes_of (4), 16384);
  assert_int_equal (block_bytes_of (131072), 256);
  assert_int_equal (block_bytes_of (1u << 18), 136);

  /* And a rank's records come back across blocks that small: each action
   * has a word that changes by a large amount, so packing needs more than
   * one block for 100 of them. */
  GError *error = NULL;
  g_autoptr (TsSpool) log = ts_spool_new (131072, sizeof (Action), 16384, &error);
  for (guint64 i = 0; i < 100; i++)
    {
      Action a = { { i, i * 0x9e3779b97f4a7c15ull, 7, i % 3 } };
      ts_spool_append (log, 131071, &a);
    }
  /* One rank's buffer: at most a block (256) and its slack. */
  assert_true (ts_spool_buffer_bytes (log) <= 256 + 8);
  assert_true (ts_spool_finish (log, &error));
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (log, 131071);
  for (guint64 i = 0; i < 100; i++)
    {
      const Action *got = ts_spool_reader_next (rd, &error);
      assert_non_null (got);
      Action want = { { i, i * 0x9e3779b97f4a7c15ull, 7, i % 3 } };
      assert_memory_equal (got, &want, sizeof want);
      assert_true (ts_spool_reader_buffer_bytes (rd) <= 256 + 68 + 8);
    }
  assert_null (ts_spool_reader_next (rd, &error));
  assert_null (error);
}

/* Ensure that records packed on the spool's thread come back as appended:
 * three ranks (counts 100, 17 and 0) appended in an interleaving that is
 * not round-robin, with batches of 16 records (the budget is 2 batches x 3
 * ranks x 16 records), so that rank 0 hands over 6 full batches and reuses
 * packed ones (there are at most 2 x 3 buffers), rank 1 one full batch and
 * a last record that only finish hands over, and rank 2 none; a reader of
 * rank 0 reads while the records are appended. Blocks of 4 records. */
static void
test_packed_behind (void **state)
{
  GError *error = NULL;
  g_autoptr (TsSpool) log = ts_spool_new (3, sizeof (Record), 4 * sizeof (Record), &error);
  assert_non_null (log);
  ts_spool_pack_behind (log, 2 * 3 * 16 * sizeof (Record));
  const guint64 counts[3] = { 100, 17, 0 };
  guint64 next[3] = { 0 };
  g_autoptr (TsSpoolReader) live = ts_spool_reader_new (log, 0);
  guint64 live_seen = 0;
  for (guint step = 0; next[0] < counts[0] || next[1] < counts[1]; step++)
    {
      guint r = (step % 5 == 4) ? 1 : 0;
      if (next[r] == counts[r])
        r = 1 - r;
      Record rec = { r, next[r]++ };
      ts_spool_append (log, r, &rec);
      /* Rank 0 has handed over 4 batches: the reader waits, if need be,
       * for the thread to pack the first. */
      if (r == 0 && next[0] == 64 && live_seen == 0)
        {
          const Record *got = ts_spool_reader_next (live, &error);
          assert_non_null (got);
          assert_int_equal (got->seq, 0);
          live_seen = 1;
        }
    }
  assert_true (ts_spool_finish (log, &error));
  check_ranks (log, counts, 3);
  const Record *rec;
  while ((rec = ts_spool_reader_next (live, &error)))
    assert_int_equal (rec->seq, live_seen++);
  assert_int_equal (live_seen, counts[0]);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_interleaved_ranks),
    cmocka_unit_test (test_packing_is_exact),
    cmocka_unit_test (test_damage_is_an_error),
    cmocka_unit_test (test_reading_while_appended),
    cmocka_unit_test (test_count_checked),
    cmocka_unit_test (test_buffers_fit_the_rank),
    cmocka_unit_test (test_blocks_share_a_budget),
    cmocka_unit_test (test_packed_behind),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
