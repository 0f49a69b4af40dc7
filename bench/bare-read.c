/* The floor for reading a trace: OTF2's own reader decoding every event of
 * every location, location by location, with no callback at all. bench/
 * compares tracesim against it. Usage: ts-bare-read TRACE.otf2 */
#include <config.h>

#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <glib.h>

typedef struct {
  OTF2_Reader *reader;
  GArray *locations;   /* OTF2_LocationRef */
} Defs;

static OTF2_CallbackCode
location (void *data, OTF2_LocationRef ref, OTF2_StringRef name, OTF2_LocationType type,
          uint64_t events, OTF2_LocationGroupRef group)
{
  Defs *d = data;
  OTF2_Reader_SelectLocation (d->reader, ref);
  g_array_append_val (d->locations, ref);
  return OTF2_CALLBACK_SUCCESS;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: %s TRACE.otf2\n", argv[0]);
      return 2;
    }
  OTF2_Reader *reader = OTF2_Reader_Open (argv[1]);
  if (!reader)
    {
      fprintf (stderr, "%s: cannot open\n", argv[1]);
      return 1;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader (reader);
  OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (gcb, location);
  Defs defs = { reader, g_array_new (FALSE, FALSE, sizeof (OTF2_LocationRef)) };
  OTF2_Reader_RegisterGlobalDefCallbacks (reader, gdr, gcb, &defs);
  uint64_t n = 0;
  OTF2_Reader_ReadAllGlobalDefinitions (reader, gdr, &n);
  OTF2_GlobalDefReaderCallbacks_Delete (gcb);
  /* Location by location, as tracesim's first pass reads them. */
  OTF2_Reader_OpenEvtFiles (reader);
  uint64_t n_locations = 0, read = 0;
  n_locations = defs.locations->len;
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  for (uint64_t i = 0; i < n_locations && rc == OTF2_SUCCESS; i++)
    {
      OTF2_EvtReader *er = OTF2_Reader_GetEvtReader (reader, g_array_index (defs.locations, OTF2_LocationRef, i));
      uint64_t got = 0;
      rc = OTF2_Reader_ReadAllLocalEvents (reader, er, &got);
      read += got;
      OTF2_Reader_CloseEvtReader (reader, er);
    }
  OTF2_Reader_CloseEvtFiles (reader);
  OTF2_Reader_Close (reader);
  g_array_unref (defs.locations);
  if (rc != OTF2_SUCCESS)
    {
      fprintf (stderr, "%s: %s\n", argv[1], OTF2_Error_GetDescription (rc));
      return 1;
    }
  printf ("%" PRIu64 " events\n", read);
  return 0;
}
