/** The one file `setup` edits for a host: the first of its setup places that exists, else the first. */
import type { HostProfile } from "../../profiles/profile.ts";
import { type EntryPlace, entryPlaces, type PlaceContext } from "../../profiles/entry_places.ts";
import { type HostFile, readHostFile } from "./file_write.ts";

export interface SetupTarget {
  place: EntryPlace;
  file: HostFile;
}

export async function setupTarget(
  profile: HostProfile,
  context: PlaceContext,
): Promise<SetupTarget | null> {
  let first: SetupTarget | null = null;
  for (const place of entryPlaces(profile, context).filter((place) => place.setup)) {
    const file = await readHostFile(place.file);
    if (file.text !== null) return { place, file };
    first ??= { place, file };
  }
  return first;
}
