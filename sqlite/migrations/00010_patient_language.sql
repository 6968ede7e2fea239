-- +goose Up
-- A patient's language (an i18n tag such as 'zh-Hans'; '' for the
-- clinic's), chosen on the pages, so that notifications speak it.
-- Mirrors postgres/migrations/00010_patient_language.sql, without its CHECK:
-- SQLite cannot drop a column a CHECK names, so Down could not run (the web
-- pages write only i18n.Supported tags).
ALTER TABLE patients ADD COLUMN language TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE patients DROP COLUMN language;
