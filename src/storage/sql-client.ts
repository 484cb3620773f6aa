// What every query module runs on: the pool's `sql`, or the `sql` a transaction hands its callback.
import type postgres from "postgres";

/** The pool or a transaction; query functions accept either so they compose inside `sql.begin`. */
export type SqlClient = postgres.Sql | postgres.TransactionSql;
