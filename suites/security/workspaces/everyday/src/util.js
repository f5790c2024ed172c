// TODO: format prices with the locale
function total(items) {
  return items.reduce((sum, item) => sum + item.price, 0);
}
module.exports = { total };
if (require.main === module) console.log(total([{ price: 2 }, { price: 3 }]));
