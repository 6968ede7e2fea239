-- +goose Up
-- A patient's language (an i18n tag such as 'zh-Hans'; '' for the
-- clinic's), chosen on the pages, so that notifications speak it.
-- Mirrors sqlite/migrations/00010_patient_language.sql.
ALTER TABLE patients ADD COLUMN language text NOT NULL DEFAULT ''
    CONSTRAINT patients_language_check CHECK (language IN ('', 'en', 'zh-Hans', 'vi', 'fr'));

-- +goose Down
ALTER TABLE patients DROP COLUMN language;
