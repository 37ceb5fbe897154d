import { crossValidatedProbabilities, outOfFold, trainingExamples, fitStacker } from '../src/ingest/classifier/training.js';
const all = trainingExamples();
const oof = outOfFold(all);
const preds = crossValidatedProbabilities(oof);
const st = fitStacker(oof.map(o=>({modelLogit:o.modelLogit,evidenceSum:o.evidenceSum,relevant:o.example.relevant})));
console.log('stacker', st);
preds.sort((a,b)=>a.p-b.p);
for (const {o,p} of preds) {
  const pk=[...new Set(o.example.item.affected.map(a=>a.package.ecosystem+':'+a.package.name))].join(',');
  console.log(`${o.example.relevant?'POS':'neg'} p=${p.toFixed(3)} m=${o.modelLogit.toFixed(1)} e=${o.evidenceSum.toFixed(1)} ${o.example.id} ${pk} | ${o.evidence.map(e=>e.kind+':'+e.detail+'('+e.weight+')').join('; ')} | ${o.modelTop.join(' ')}`);
}
