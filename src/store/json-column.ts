/** Reading a JSON column of a store row: a malformed value is a `TrajectoryStoreError` naming the file, the row and the column. */
import { TrajectoryStoreError } from "./errors.js";

/** A parser of one row's JSON columns (null stays null); `where` names the row in the error. */
export function jsonColumnParser(file: string, where: string): <T>(column: string, text: string | null) => T | null {
  return <T>(column: string, text: string | null): T | null => {
    if (text === null) return null;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new TrajectoryStoreError(file, [`${where}: column ${column} holds malformed JSON`], { cause: error });
    }
  };
}
