-- +goose Up
-- Mirroring postgres/migrations/00044_doctor_profiles.sql: doctors'
-- profiles (lists one item a line), their photos in a table of their own,
-- and the indexes of the search's start-of-name match.
ALTER TABLE resources ADD COLUMN title TEXT NOT NULL DEFAULT '' CONSTRAINT resources_title_check CHECK (length(title) <= 100);
ALTER TABLE resources ADD COLUMN specialties TEXT NOT NULL DEFAULT '' CONSTRAINT resources_specialties_check CHECK (length(specialties) <= 700);
ALTER TABLE resources ADD COLUMN languages TEXT NOT NULL DEFAULT '' CONSTRAINT resources_languages_check CHECK (length(languages) <= 700);
ALTER TABLE resources ADD COLUMN bio TEXT NOT NULL DEFAULT '' CONSTRAINT resources_bio_check CHECK (length(bio) <= 2000);
CREATE TABLE doctor_photos (
    doctor_id    INTEGER PRIMARY KEY REFERENCES resources (id),
    content_type TEXT NOT NULL CONSTRAINT doctor_photos_type_check CHECK (content_type IN ('image/jpeg', 'image/png')),
    data         BLOB NOT NULL CONSTRAINT doctor_photos_size_check CHECK (length(data) <= 524288),
    etag         TEXT NOT NULL,
    updated_at   INTEGER NOT NULL
) STRICT;
-- SQLite's LIKE (ASCII case-insensitive) reads a NOCASE index for a prefix.
CREATE INDEX resources_doctor_name_idx ON resources (name COLLATE NOCASE) WHERE kind = 'doctor';
CREATE INDEX services_name_nocase_idx ON services (name COLLATE NOCASE);
CREATE INDEX departments_name_nocase_idx ON departments (name COLLATE NOCASE);

-- +goose Down
DROP INDEX departments_name_nocase_idx;
DROP INDEX services_name_nocase_idx;
DROP INDEX resources_doctor_name_idx;
DROP TABLE doctor_photos;
ALTER TABLE resources DROP COLUMN bio;
ALTER TABLE resources DROP COLUMN languages;
ALTER TABLE resources DROP COLUMN specialties;
ALTER TABLE resources DROP COLUMN title;
