-- +goose Up
-- Mirroring postgres/migrations/00045_consulting_rooms.sql: where a doctor
-- sees patients, named on the waiting-room boards.
ALTER TABLE resources ADD COLUMN consulting_room TEXT NOT NULL DEFAULT '' CONSTRAINT resources_consulting_room_check CHECK (length(consulting_room) <= 40);

-- +goose Down
ALTER TABLE resources DROP COLUMN consulting_room;
