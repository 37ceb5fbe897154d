-- Cheap updates of a served issue's row that leave its indexed columns alone, such as the
-- crossRefCount changes of thousands of served issues per batch when a reclassify or a sync serves
-- issues of a popular package (bench/README.md, "Reclassify"). On 10,000 issues, 1,900 such
-- updates of served rows took 399 ms, 150 ms at fillfactor 85 and 28 ms at 75 with the trigger
-- below. Loading the 10,000 took 39.1 s, then 16.9 s.

-- Room on each page for a new version of a row: the update is then HOT, with no new entry in any
-- index (a served row is in thirteen, six of them GIN, one trigram). Rows are about 4 KB,
-- one or two to a page, so less room made few updates HOT (85: 62%, 75: 85%). The heap of a
-- store that has been updated is smaller, not larger: without room, every update left a dead
-- version behind on another page (192 MB at 100, 62 MB at 75, after loading 10,000 issues).
ALTER TABLE "Issue" SET (fillfactor = 75);

-- searchVector kept by a trigger instead of as a generated column: PostgreSQL recomputes a stored
-- generated column on every update of its row, whatever the update sets, so each count change of
-- a served issue ran to_tsvector again. The trigger computes it only when a column it is made from
-- is written (loading the 10,000 above: 20.8 s with the generated column, 16.9 s with this).
ALTER TABLE "Issue" ALTER COLUMN "searchVector" DROP EXPRESSION;

-- The PostgreSQL driver adapter runs a migration as the statements between its semicolons, even
-- those inside a function body, so the body writes its own as U&'\003B'.
CREATE FUNCTION "issue_search_vector"() RETURNS trigger LANGUAGE plpgsql AS U&'
BEGIN
  NEW."searchVector" := CASE WHEN NEW.relevant AND NEW.processed AND NOT NEW.withdrawn
    THEN to_tsvector(''english''::regconfig, NEW."searchText") END\003B
  RETURN NEW\003B
END
';

CREATE TRIGGER "Issue_searchVector"
  BEFORE INSERT OR UPDATE OF "searchText", relevant, processed, withdrawn ON "Issue"
  FOR EACH ROW EXECUTE FUNCTION "issue_search_vector"();
