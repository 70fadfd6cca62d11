// Functions for the SQLite macros Swift cannot import.
#ifndef CSQLITESHIMS_H
#define CSQLITESHIMS_H
#include "../../CSQLite/CSQLite.h"
/// sqlite3_bind_text with SQLITE_TRANSIENT (SQLite copies the text before returning).
int cashier_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, int length);
/// sqlite3_bind_blob with SQLITE_TRANSIENT.
int cashier_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length);
#endif
